/** Any /api path no route claims: a JSON 404, never the HTML not-found page. */
function notFound() {
  return Response.json({ message: "Not found" }, { status: 404 });
}

export const loader = notFound;
export const action = notFound;
