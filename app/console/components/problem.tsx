/** A failure shown in words, with a way back. */
export function Problem({ title = 'This could not be shown', message }: { title?: string; message: string }) {
  return (
    <section className="card problem" role="alert">
      <h1>{title}</h1>
      <p>{message}</p>
    </section>
  );
}
