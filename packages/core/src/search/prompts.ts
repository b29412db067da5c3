/** Prompt of `ask`: answer from the facts only, or say the not-found text. */
export const ANSWER_PROMPT = `Facts:
{{$facts}}
======
Given only the facts above, provide a comprehensive answer.
You don't know where the knowledge comes from, just answer.
If you don't have sufficient information, reply with '{{$notFound}}'.
Question: {{$input}}
Answer: `;

/** Renders a prompt template with `{{$name}}` placeholders. */
export function renderPrompt(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\$(\w+)\}\}/g, (m, name: string) => values[name] ?? m);
}
