/**
 * The Discord tab's slash commands (issue 37, item 5): whether Discord's deliveries are answered and the
 * Interactions Endpoint URL to set, and a command sent as a test member (a linked one, or one with no linked
 * wallet) with the answer drawn as holders would see it in Discord. Reads /api/admin/discord/commands and
 * posts to /api/admin/discord/commands/test.
 */
import { useState, type ReactNode } from "react";
import type { DiscordCommandMessage, DiscordCommands, DiscordStatus, DiscordTestCommandAnswer } from "../../api/discord.ts";
import { api, ApiError } from "../../lib/api.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { Button, Spinner } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { Input, Label } from "../ui/input.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { discordMarkdown } from "./discord-markdown.ts";

const COMMANDS = "/api/admin/discord/commands";
const STATUS = "/api/admin/discord/status";
const UNLINKED = "";

const SELECT_CLASS =
  "h-10 w-full rounded-lg border border-zinc-700 bg-zinc-900 px-3 text-sm text-zinc-100 focus-visible:border-violet-500 focus-visible:outline-2 focus-visible:outline-violet-500/40";

function Markdown({ text }: { text: string }) {
  return (
    <>
      {discordMarkdown(text).map((part, index) => {
        if (part.kind === "bold") return <strong key={index}>{part.text}</strong>;
        if (part.kind === "code") {
          return (
            <code key={index} className="rounded bg-zinc-950 px-1 text-[0.85em] break-all">
              {part.text}
            </code>
          );
        }
        if (part.kind === "time") {
          return (
            <time key={index} dateTime={part.iso} className="rounded bg-zinc-700/60 px-1">
              {part.text}
            </time>
          );
        }
        if (part.kind === "link") {
          return (
            <a key={index} href={part.href} className="text-sky-400 underline" target="_blank" rel="noreferrer">
              {part.text}
            </a>
          );
        }
        return <span key={index}>{part.text}</span>;
      })}
    </>
  );
}

type Embed = NonNullable<DiscordCommandMessage["embeds"]>[number];
type LinkButton = { label?: string; url?: string };

function buttonsOf(message: DiscordCommandMessage): LinkButton[] {
  return (message.components ?? []).flatMap((row) =>
    typeof row === "object" && row !== null && "components" in row && Array.isArray(row.components) ? (row.components as LinkButton[]) : [],
  );
}

function EmbedView({ embed }: { embed: Embed }) {
  const color = `#${(embed.color ?? 0x8b5cf6).toString(16).padStart(6, "0")}`;
  const title: ReactNode = embed.url ? (
    <a href={embed.url} className="text-sky-400 hover:underline" target="_blank" rel="noreferrer">
      {embed.title}
    </a>
  ) : (
    embed.title
  );
  return (
    <div className="grid gap-2 rounded border-l-4 bg-zinc-800/80 p-3 text-sm text-zinc-200" style={{ borderLeftColor: color }}>
      {embed.title && <p className="font-semibold text-white">{title}</p>}
      {embed.description && (
        <p className="break-words whitespace-pre-line">
          <Markdown text={embed.description} />
        </p>
      )}
      {embed.fields && embed.fields.length > 0 && (
        <dl className="grid gap-2 sm:grid-cols-3">
          {embed.fields.map((field, index) => (
            <div key={index} className={field.inline ? "min-w-0" : "min-w-0 sm:col-span-3"}>
              <dt className="font-semibold text-white">
                <Markdown text={field.name} />
              </dt>
              <dd className="break-words whitespace-pre-line text-zinc-300">
                <Markdown text={field.value} />
              </dd>
            </div>
          ))}
        </dl>
      )}
      {embed.footer && <p className="text-xs text-zinc-400">{embed.footer.text}</p>}
    </div>
  );
}

/** The answer as Discord draws it: "Only you can see this" when ephemeral, the embeds, the link buttons. */
export function DiscordMessagePreview({ answer }: { answer: DiscordTestCommandAnswer }) {
  const { message } = answer;
  return (
    <div className="grid gap-2 rounded-lg border border-zinc-800 bg-zinc-900 p-3" data-testid="discord-command-answer">
      <p className="text-xs text-zinc-400">
        {answer.ephemeral ? "Only the member who asked sees this (ephemeral)." : "Everyone in the channel sees this."} Answered in{" "}
        {answer.elapsedMs} ms
        {answer.wouldDefer ? ": Discord would first show “Spooks is thinking…”, then this." : "."}
      </p>
      {(message.embeds ?? []).map((embed, index) => (
        <EmbedView key={index} embed={embed} />
      ))}
      {buttonsOf(message).length > 0 && (
        <div className="flex flex-wrap gap-2">
          {buttonsOf(message).map((button) => (
            <a
              key={`${button.label}${button.url}`}
              href={button.url}
              target="_blank"
              rel="noreferrer"
              className="rounded bg-zinc-700 px-3 py-1.5 text-sm text-white hover:bg-zinc-600"
            >
              {button.label} ↗
            </a>
          ))}
        </div>
      )}
    </div>
  );
}

export function DiscordCommandsPanel({ onUnauthorized }: { onUnauthorized: () => void }) {
  const commands = useApiQuery<DiscordCommands>(COMMANDS, { staleTime: 60_000 });
  const status = useApiQuery<DiscordStatus>(STATUS, { staleTime: 0, refetchInterval: 15_000 });
  const [command, setCommand] = useState("points");
  const [options, setOptions] = useState<Record<string, string>>({});
  const [asAddress, setAsAddress] = useState(UNLINKED);
  const [answer, setAnswer] = useState<DiscordTestCommandAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const spec = commands.data?.commands.find((candidate) => candidate.name === command);
  const links = status.data?.links ?? [];

  const send = async () => {
    setBusy(true);
    setError(null);
    try {
      const values: Record<string, string | number> = {};
      for (const option of spec?.options ?? []) {
        const raw = (options[option.name] ?? "").trim();
        if (raw === "") continue;
        values[option.name] = option.type === 4 && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      }
      const body = { command, options: values, asAddress: asAddress === UNLINKED ? null : asAddress };
      setAnswer(await api<DiscordTestCommandAnswer>(`${COMMANDS}/test`, { method: "POST", body }));
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) onUnauthorized();
      setError(failure instanceof Error ? failure.message : "The command could not be sent");
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card className="grid gap-3 p-5" data-testid="discord-commands">
      <h2 className="text-lg font-semibold text-white">Slash commands</h2>
      {commands.error && (
        <LoadFailed what="the commands" error={commands.error} onRetry={commands.refetch} retrying={commands.isFetching} />
      )}
      {commands.data && (
        <p className="text-sm text-zinc-400">
          {commands.data.enabled
            ? "Discord's deliveries are answered. The application's Interactions Endpoint URL: "
            : "Discord's deliveries are off (DISCORD_PUBLIC_KEY is not set); you can still try the commands here. Once set, the application's Interactions Endpoint URL is "}
          <code className="break-all text-violet-200">{commands.data.endpointUrl}</code>
        </p>
      )}
      <form
        className="grid gap-3 sm:grid-cols-3"
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <div className="grid gap-1">
          <Label htmlFor="discord-command">Command</Label>
          <select
            id="discord-command"
            className={SELECT_CLASS}
            value={command}
            onChange={(event) => {
              setCommand(event.target.value);
              setOptions({});
            }}
          >
            {(commands.data?.commands ?? []).map((candidate) => (
              <option key={candidate.name} value={candidate.name}>
                /{candidate.name}
              </option>
            ))}
          </select>
        </div>
        <div className="grid gap-1">
          <Label htmlFor="discord-command-as">Send as</Label>
          <select id="discord-command-as" className={SELECT_CLASS} value={asAddress} onChange={(event) => setAsAddress(event.target.value)}>
            <option value={UNLINKED}>A member with no linked wallet</option>
            {links.map((link) => (
              <option key={link.address} value={link.address}>
                {link.username} ({link.address})
              </option>
            ))}
          </select>
        </div>
        {(spec?.options ?? []).map((option) => (
          <div key={option.name} className="grid gap-1">
            <Label htmlFor={`discord-option-${option.name}`}>
              {option.name}
              {option.required ? "" : " (optional)"}
            </Label>
            <Input
              id={`discord-option-${option.name}`}
              inputMode={option.type === 4 ? "numeric" : undefined}
              placeholder={option.description}
              value={options[option.name] ?? ""}
              onChange={(event) => setOptions({ ...options, [option.name]: event.target.value })}
            />
          </div>
        ))}
        <div className="flex items-end sm:col-span-3">
          <Button type="submit" disabled={busy || !commands.data}>
            {busy && <Spinner />} Send test command
          </Button>
        </div>
      </form>
      {spec && <p className="text-xs text-zinc-500">{spec.description}</p>}
      {error && (
        <p role="alert" className="text-sm text-red-300">
          {error}
        </p>
      )}
      {answer && <DiscordMessagePreview answer={answer} />}
    </Card>
  );
}
