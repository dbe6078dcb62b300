import { LockIcon, ShieldIcon, SparklesIcon, WalletIcon } from "../icons.tsx";
import { Card, CardContent, CardHeader, CardTitle } from "../ui/card.tsx";

const STEPS = [
  { title: "Connect wallet", text: "Connect the MyDoge wallet that holds your Spooks.", Icon: WalletIcon },
  { title: "Sign staking message", text: "Sign a message to stake a Spook. No fees, nothing leaves your wallet.", Icon: LockIcon },
  { title: "Earn Spook Points", text: "Staked Spooks earn SPOOK Points every hour, to spend on giveaways.", Icon: SparklesIcon },
];

export function HowStakingWorks() {
  return (
    <Card>
      <CardHeader>
        <CardTitle>How Staking Works</CardTitle>
      </CardHeader>
      <CardContent className="grid gap-5">
        <ol className="grid gap-3 sm:grid-cols-3">
          {STEPS.map(({ title, text, Icon }, index) => (
            <li key={title} className="rounded-lg border border-zinc-800 bg-zinc-900/60 p-4">
              <div className="flex items-center gap-3">
                <span className="grid h-8 w-8 place-items-center rounded-full bg-violet-600 text-sm font-bold text-white">{index + 1}</span>
                <Icon className="h-5 w-5 text-violet-300" />
              </div>
              <p className="mt-3 font-semibold text-zinc-100">{title}</p>
              <p className="mt-1 text-sm text-zinc-400">{text}</p>
            </li>
          ))}
        </ol>
        <p className="flex items-start gap-2 rounded-lg border border-violet-500/20 bg-violet-500/5 p-3 text-sm text-zinc-300">
          <ShieldIcon className="mt-0.5 h-4 w-4 shrink-0 text-violet-300" />
          <span>
            This is soft staking: your Spooks never leave your wallet, we only track ownership. If you transfer a staked Spook to another
            wallet, it is unstaked automatically and stops earning.
          </span>
        </p>
      </CardContent>
    </Card>
  );
}
