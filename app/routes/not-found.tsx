import { data } from "react-router";
import type { Route } from "./+types/not-found";

export function loader() {
  return data(null, { status: 404 });
}

export const meta: Route.MetaFunction = () => [{ title: "404 Page Not Found | Spooks" }];

export default function NotFound() {
  return (
    // Inside the layout's <main>, under its header and navigation.
    <section className="mx-auto flex min-h-[50vh] max-w-xl flex-col items-center justify-center p-8 text-center">
      <h1 className="text-3xl font-bold">404 Page Not Found</h1>
      <p className="mt-3 text-zinc-400">Did you forget to add the page to the router?</p>
      <a href="/" className="mt-6 rounded-md bg-violet-600 px-4 py-2 font-medium text-white hover:bg-violet-500">
        Back to staking
      </a>
    </section>
  );
}
