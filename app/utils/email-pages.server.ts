/**
 * The two small pages behind an email's links (confirm, unsubscribe): plain HTML, no script, one form
 * posting back to the same URL. Everything shown is escaped.
 */

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);

export function htmlPage(page: { title: string; text: string; button?: string; field?: { name: string; value: string } }): Response {
  const form = page.button
    ? `<form method="post">${page.field ? `<input type="hidden" name="${escape(page.field.name)}" value="${escape(page.field.value)}">` : ""}<button type="submit">${escape(page.button)}</button></form>`
    : "";
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(page.title)}</title></head>
<body><main><h1>${escape(page.title)}</h1><p>${escape(page.text)}</p>${form}<p><a href="/">Spooks</a></p></main></body></html>
`;
  return new Response(html, { status: 200, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" } });
}

/** A browser's form post (it asks for HTML first); a mail client's one-click POST or an API client gets JSON. */
export function prefersHtml(request: Request): boolean {
  return (request.headers.get("accept") ?? "").split(",")[0].trim().toLowerCase().startsWith("text/html");
}
