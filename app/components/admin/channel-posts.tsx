/**
 * "Discord channel": demo mode's announcements channel (GET /api/admin/notifications/channel-posts), newest
 * first, shown as the mail outbox shows the captured mail (issue 33, item 8). For the admin's Notifications tab.
 */
import { useEffect } from "react";
import type { ClientAnswer } from "../../api/kit.ts";
import type { listChannelPosts } from "../../api/notifications.ts";
import { ApiError } from "../../lib/api.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { DateText } from "../governance/date-text.tsx";
import { Card } from "../ui/card.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";

type Posts = ClientAnswer<typeof listChannelPosts>;

export function ChannelPosts({ onUnauthorized }: { onUnauthorized: () => void }) {
  const posts = useApiQuery<Posts>("/api/admin/notifications/channel-posts", { staleTime: 0, refetchInterval: 15_000 });
  const unauthorized = posts.error instanceof ApiError && posts.error.status === 401;
  useEffect(() => {
    if (unauthorized) onUnauthorized();
  }, [unauthorized, onUnauthorized]);

  return (
    <section aria-labelledby="channel-posts-title" className="space-y-3" data-testid="channel-posts">
      <h3 id="channel-posts-title" className="text-lg font-semibold text-zinc-100">
        Discord channel
      </h3>
      <p className="text-sm text-zinc-400">
        Demo mode posts the public events to its own Discord double: what the channel received is here.
      </p>
      {posts.isPending ? (
        <Skeleton className="h-24 w-full" />
      ) : posts.isError ? (
        <LoadFailed what="the channel's posts" error={posts.error} onRetry={() => void posts.refetch()} />
      ) : posts.data.length === 0 ? (
        <p className="text-sm text-zinc-400">No posts yet.</p>
      ) : (
        <ul className="space-y-2">
          {posts.data.map((post, index) => (
            <li key={`${post.at}-${index}`}>
              <Card className="grid gap-1 p-3" data-testid="channel-post">
                <span className="text-sm font-medium text-zinc-100">
                  {post.url ? (
                    <a href={post.url} className="underline decoration-zinc-600 underline-offset-4 hover:text-white">
                      {post.title}
                    </a>
                  ) : (
                    post.title
                  )}
                </span>
                <span className="text-sm text-zinc-300">{post.description}</span>
                <span className="text-xs text-zinc-400">
                  {post.event} · <DateText value={post.at} withTime />
                </span>
              </Card>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
