import type { ReactNode } from 'react';

/**
 * A console table whose rows become cards on a phone (globals.css `.card-table`): the API tokens,
 * the history of saves. There its header is hidden, so each cell names its column itself
 * (`data-label`). The last column holds the row's actions; its heading is for screen readers only.
 */
export function CardTable({
  className,
  caption,
  columns,
  children,
}: {
  /** The table's own class (its paddings, what its cells hold). */
  className: string;
  /** For screen readers only. */
  caption?: string;
  /** The headings of the columns before the actions' column. */
  columns: readonly string[];
  /** The rows. */
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={`card-table ${className}`}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
