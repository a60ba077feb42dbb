import {
  CARD_DESCRIPTION_MAX,
  CARD_TITLE_MAX,
  truncateForCard,
  type SocialCardFields,
} from '@/server/console/social-card';

/**
 * "When shared": the large-image card common networks draw from the public page's Open Graph
 * tags (server/console/social-card.ts reads them from the page the public renderer makes), with
 * title and description cut where networks cut them. The state is said in words, never by
 * colour alone.
 */
export function SocialCard(props: SocialCardFields) {
  const { state, title, description, image, domain, siteName, twitterCard } = props;
  const shownTitle = truncateForCard(title, CARD_TITLE_MAX);
  const shownDescription = truncateForCard(description, CARD_DESCRIPTION_MAX);
  const coverLeftOut = !image && twitterCard === 'summary_large_image';
  return (
    <section className="social-card" aria-labelledby="social-card-heading">
      <h2 id="social-card-heading">When shared</h2>
      <p className="muted">
        {state === 'published'
          ? 'How a link to the public page shows on social networks and in chats, from the page’s own tags.'
          : 'Nothing is public yet: how a link will show once the saved working version is published (when published).'}
      </p>
      <p className="social-card__state">{state === 'published' ? 'Public now' : 'When published'}</p>
      <figure className="social-card__card">
        {image ? (
          // eslint-disable-next-line @next/next/no-img-element -- stored files are served as they are
          <img
            className="social-card__image"
            src={image.src}
            alt={title}
            width={image.width ?? undefined}
            height={image.height ?? undefined}
            loading="lazy"
          />
        ) : (
          <div className="social-card__placeholder">
            {coverLeftOut
              ? 'Cover not shared: without PUBLIC_ORIGIN the page has no og:image, so networks show a text card'
              : 'No cover: networks show a text card'}
          </div>
        )}
        <figcaption className="social-card__text">
          <span className="social-card__domain">{siteName ?? domain ?? 'No address: PUBLIC_ORIGIN is unset'}</span>
          <span className="social-card__title" title={shownTitle === title ? undefined : title}>
            {shownTitle}
          </span>
          {shownDescription && (
            <span
              className="social-card__description"
              title={shownDescription === description ? undefined : description}
            >
              {shownDescription}
            </span>
          )}
        </figcaption>
      </figure>
    </section>
  );
}
