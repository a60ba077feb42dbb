import type { PostStatus } from '@/server/model/post';

const LABELS: Record<PostStatus, string> = {
  draft: 'Draft',
  pending_moderation: 'Pending moderation',
  published: 'Published',
};

export function StatusBadge({ status }: { status: PostStatus }) {
  return <span className={`badge badge--${status}`}>{LABELS[status]}</span>;
}

export function ChangesMarker() {
  return (
    <span className="badge badge--changes" title="The working version differs from what readers see">
      Unpublished changes
    </span>
  );
}
