/**
 * The actions that ask a remote (Select Winner: the ord server's blocks; Discord rules: the guild's roles) ask it
 * before any transaction opens, whether applied at once or approved with a second signature (issue 35; issue 32's
 * rule: commit first, never wait on a remote inside a transaction). On the embedded database, whose one backend a
 * transaction holds, a slow ord server or a slow Discord therefore no longer stalls the other requests; the
 * approval, its audit row and the action's effect still commit together, and a refusal leaves the approval pending
 * with its signature unused. Real HTTP, a real database, real signatures, the simulated ord server and the Discord
 * double made slow.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDiscordDouble, type DiscordDouble, type GuildView } from "../../doubles/discord/discord-double.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { discordEnv } from "../support/discord-env.ts";
import { sleep } from "../support/net.ts";
import { approveAs, minutesFromNow, newWallet, signedApproval, signIn, useApi, type Wallet } from "./support.ts";

let discord: DiscordDouble | undefined;
let guild: GuildView;
const ctx = useApi({
  env: async () => {
    discord = await startDiscordDouble({ globalPerSecond: 1000 });
    guild = discord.createGuild({ roles: [{ name: "Holder", position: 1 }], botRole: { position: 4 } });
    return discordEnv(discord, guild.id);
  },
});

let chain: SimulatedChain;
const coAdmin: Wallet = newWallet();
const cookies = {} as { owner: string; admin: string };

beforeAll(async () => {
  chain = await startSimulatedChain({ owners: new Map() });
  ctx.server.context.config.ordUrl = chain.url;
  cookies.owner = await ctx.adminCookie();
  expect((await ctx.call("POST", "/api/admin/team", { address: coAdmin.address, role: "admin" }, { cookie: cookies.owner })).status).toBe(
    200,
  );
  cookies.admin = await signIn(ctx, coAdmin);
});
afterAll(async () => {
  await chain?.close();
  await discord?.close();
});

/** How late the slow remote answers each request. Select Winner asks the ord server twice; Discord's roles take two rounds. */
const SLOW_MS = 2000;
/** A read made meanwhile answers within this (it waited for the whole remote exchange before). */
const READ_WITHIN_MS = 1000;

const holderRole = () => guild.roles.find((role) => role.name === "Holder")!.id;

async function createGiveaway(title: string): Promise<number> {
  const body = { title, description: "A prize", imageUrl: "/uploads/prize.png", pointsCost: 1, endDate: minutesFromNow(60).toISOString() };
  const created = await ctx.call("POST", "/api/giveaways", body, { cookie: cookies.owner });
  expect(created.body.drawVersion).toBe(2);
  return created.body.id;
}

/** Runs `slow` and, 150 ms into it, a read of the database (the leaderboard); answers both, timed. */
async function readMeanwhile<T>(slow: () => Promise<T>): Promise<{ answer: T; ms: number; readMs: number }> {
  const started = performance.now();
  const running = slow().then((answer) => ({ answer, ms: performance.now() - started }));
  await sleep(150);
  const readStarted = performance.now();
  const read = await ctx.call("GET", "/api/leaderboard");
  const readMs = performance.now() - readStarted;
  expect(read.status).toBe(200);
  return { ...(await running), readMs };
}

async function statusOf(id: number): Promise<string> {
  const [row] = await ctx.sql<{ status: string }[]>`select status from admin_approvals where id = ${id}`;
  return row.status;
}

const approvalAudit = async (action: string, target: string | null) =>
  ctx.sql<{ actorAddress: string; details: { approval?: unknown } }[]>`
    select actor_address, details from audit_log where action = ${action} and target is not distinct from ${target}`;

describe("applied at once (no policy): the remote is asked outside any transaction", () => {
  it("Select Winner with a slow ord server does not stall a read made meanwhile", async () => {
    const id = await createGiveaway("Slow chain, direct");
    const count = chain.blockCount();
    chain.setLatency(SLOW_MS);
    try {
      const { answer, ms, readMs } = await readMeanwhile(() =>
        ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie: cookies.owner }),
      );
      console.info(
        `select winner, ord server ${SLOW_MS} ms late: answered in ${Math.round(ms)} ms; a read meanwhile: ${Math.round(readMs)} ms`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ version: 2, status: "drawing", blockHeight: count + 6 });
      expect(ms).toBeGreaterThan(SLOW_MS);
      expect(readMs).toBeLessThan(READ_WITHIN_MS);
    } finally {
      chain.setLatency(0);
    }
  });

  it("saving Discord rules with a slow Discord does not stall a read made meanwhile", async () => {
    discord!.setLatency(SLOW_MS);
    try {
      const { answer, ms, readMs } = await readMeanwhile(() =>
        ctx.call("PUT", "/api/admin/discord/rules", [{ roleId: holderRole(), minStaked: 1 }], { cookie: cookies.owner }),
      );
      console.info(
        `Discord rules, Discord ${SLOW_MS} ms late: answered in ${Math.round(ms)} ms; a read meanwhile: ${Math.round(readMs)} ms`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.rules).toEqual([{ roleId: holderRole(), minStaked: 1 }]);
      expect(ms).toBeGreaterThan(SLOW_MS);
      expect(readMs).toBeLessThan(READ_WITHIN_MS);
    } finally {
      discord!.setLatency(0);
    }
  });
});

describe("approved with a second signature: the remote is asked before the approval's transaction", () => {
  beforeAll(async () => {
    const policy = { pointsAbove: null, actions: ["select-winner", "discord.rules"] };
    expect((await ctx.call("PUT", "/api/admin/approvals/policy", policy, { cookie: cookies.owner })).status).toBe(200);
  });

  it("Select Winner approved while the ord server is slow: a read meanwhile is not stalled; approval, audit and close commit together", async () => {
    const id = await createGiveaway("Slow chain, approved");
    const asked = await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie: cookies.owner });
    expect(asked.status).toBe(202);
    const approvalId = asked.body.approvalId as number;
    const count = chain.blockCount();
    chain.setLatency(SLOW_MS);
    try {
      const { answer, ms, readMs } = await readMeanwhile(() => approveAs(ctx, coAdmin, cookies.admin, asked.body));
      console.info(
        `approving select winner, ord server ${SLOW_MS} ms late: ${Math.round(ms)} ms; a read meanwhile: ${Math.round(readMs)} ms`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.result).toMatchObject({ version: 2, status: "drawing", blockHeight: count + 6 });
      expect(ms).toBeGreaterThan(SLOW_MS);
      expect(readMs).toBeLessThan(READ_WITHIN_MS);
    } finally {
      chain.setLatency(0);
    }
    expect(await statusOf(approvalId)).toBe("approved");
    expect(await approvalAudit("approval.approve", `approval:${approvalId}`)).toHaveLength(1);
    const [close] = await approvalAudit("giveaway.close", `giveaway:${id}`);
    expect(close).toEqual({
      actorAddress: ctx.admin.address,
      details: expect.objectContaining({ approval: { id: approvalId, proposedBy: ctx.admin.address, approvedBy: coAdmin.address } }),
    });
  });

  it("Select Winner approved while the ord server does not answer: 503, the approval stays pending, its signature unused", async () => {
    const id = await createGiveaway("No chain, approved");
    const asked = await ctx.call("POST", `/api/giveaways/${id}/select-winner`, {}, { cookie: cookies.owner });
    const { approvalId, summary } = asked.body as { approvalId: number; summary: string };
    const signed = signedApproval(coAdmin, approvalId, summary);
    ctx.server.context.config.ordUrl = "http://127.0.0.1:9";
    try {
      const refused = await ctx.call("POST", `/api/admin/approvals/${approvalId}/approve`, signed, { cookie: cookies.admin });
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ message: "The ord server did not answer: entries stay open, try again" });
    } finally {
      ctx.server.context.config.ordUrl = chain.url;
    }
    expect(await statusOf(approvalId)).toBe("pending");
    expect(await ctx.sql`select 1 from used_signatures where signature = ${signed.signature}`).toHaveLength(0);
    expect((await ctx.call("GET", `/api/giveaways/${id}`)).body.drawBlockHeight).toBeNull();
    // The same signature, once the ord server answers: applied.
    const approved = await ctx.call("POST", `/api/admin/approvals/${approvalId}/approve`, signed, { cookie: cookies.admin });
    expect(approved.status).toBe(200);
    expect(approved.body.result).toMatchObject({ status: "drawing" });
  });

  it("Discord rules approved while Discord is slow: a read meanwhile is not stalled; approval, audit and rules commit together", async () => {
    const rules = [{ roleId: holderRole(), minPoints: 500 }];
    const asked = await ctx.call("PUT", "/api/admin/discord/rules", rules, { cookie: cookies.owner });
    expect(asked.status).toBe(202);
    const approvalId = asked.body.approvalId as number;
    expect((await ctx.sql`select min_points from discord_rules`).map((row) => row.minPoints)).toEqual([null]);
    discord!.setLatency(SLOW_MS);
    try {
      const { answer, ms, readMs } = await readMeanwhile(() => approveAs(ctx, coAdmin, cookies.admin, asked.body));
      console.info(`approving Discord rules, Discord ${SLOW_MS} ms late: ${Math.round(ms)} ms; a read meanwhile: ${Math.round(readMs)} ms`);
      expect(answer.status).toBe(200);
      expect(answer.body.result.rules).toEqual(rules);
      expect(ms).toBeGreaterThan(SLOW_MS);
      expect(readMs).toBeLessThan(READ_WITHIN_MS);
    } finally {
      discord!.setLatency(0);
    }
    expect(await statusOf(approvalId)).toBe("approved");
    expect((await ctx.sql`select min_points from discord_rules`).map((row) => row.minPoints)).toEqual([500]);
    const saved = await approvalAudit("discord.rules", null);
    expect(saved.at(-1)?.details.approval).toEqual({ id: approvalId, proposedBy: ctx.admin.address, approvedBy: coAdmin.address });
  });

  it("Discord rules naming a role the server does not have: 400 at approval, the approval stays pending, its signature unused", async () => {
    const asked = await ctx.call("PUT", "/api/admin/discord/rules", [{ roleId: "1234567890123456789", minStaked: 1 }], {
      cookie: cookies.owner,
    });
    expect(asked.status).toBe(202);
    const { approvalId, summary } = asked.body as { approvalId: number; summary: string };
    const signed = signedApproval(coAdmin, approvalId, summary);
    const refused = await ctx.call("POST", `/api/admin/approvals/${approvalId}/approve`, signed, { cookie: cookies.admin });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: "The Discord server has no role 1234567890123456789" });
    expect(await statusOf(approvalId)).toBe("pending");
    expect(await ctx.sql`select 1 from used_signatures where signature = ${signed.signature}`).toHaveLength(0);
    expect((await ctx.sql`select min_points from discord_rules`).map((row) => row.minPoints)).toEqual([500]);
  });
});
