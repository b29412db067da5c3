/** Prompt of `ask`: answer from the facts only, or say the not-found text. */
export const ANSWER_PROMPT = `Facts:
{{$facts}}
======
Given only the facts above, provide a comprehensive answer.
You don't know where the knowledge comes from, just answer.
If you don't have sufficient information, reply with '{{$notFound}}'.
Question: {{$input}}
Answer: `;

/** Prompt of the `summarize` step; `{{$input}}` is the text to summarise. */
export const SUMMARY_PROMPT = `[SUMMARIZATION RULES]
Write a concise summary of the content below. Keep names, numbers, dates and key facts.
Do not add anything that is not in the content. Write plain sentences.
[END RULES]

Content:
{{$input}}

Summary:`;

/**
 * How one fact is written into the answer prompt (KM's default fact template). Placeholders:
 * `{{$source}}`, `{{$relevance}}`, `{{$memoryId}}`, `{{$tags}}`, `{{$tags[name]}}`,
 * `{{$meta[field]}}`, `{{$content}}`.
 */
export const FACT_TEMPLATE = '==== [File:{{$source}};Relevance:{{$relevance}}]:\n{{$content}}';

/** Renders a prompt template with `{{$name}}` placeholders; unknown ones stay as they are. */
export function renderPrompt(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\$(\w+)\}\}/g, (m, name: string) => values[name] ?? m);
}
