import { GhostIcon } from "../icons.tsx";
import { LogStatus } from "./log-status.tsx";
import { SOCIAL_LINKS, TAGLINE } from "./links.ts";

export function Footer() {
  return (
    <footer className="mt-16 border-t border-violet-500/10 bg-zinc-950/80">
      <div className="mx-auto flex max-w-7xl flex-col items-center justify-between gap-4 px-4 py-8 text-sm text-zinc-400 sm:flex-row sm:px-6">
        <p className="flex items-center gap-2">
          <GhostIcon className="h-4 w-4 text-violet-400" />
          <span>{TAGLINE}</span>
        </p>
        <ul className="flex gap-4 md:hidden" aria-label="Community links">
          {SOCIAL_LINKS.map((link) => (
            <li key={link.href}>
              <a href={link.href} target="_blank" rel="noopener noreferrer" className="hover:text-violet-300">
                {link.label.replace("Spooks ", "").replace(" community", "")}
              </a>
            </li>
          ))}
        </ul>
        <p>
          <LogStatus />
        </p>
        <p>© {new Date().getFullYear()} Spooks. All rights reserved.</p>
      </div>
    </footer>
  );
}
