/**
 * The body of every error answer: RFC 9457 problem details as ASP.NET (and so Kernel Memory)
 * writes them, plus km's error code and the request id.
 */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  /** km's machine-readable error code, e.g. `invalid_tag`. */
  code?: string;
  requestId?: string;
}
