import type { ReactNode } from 'react';
import './globals.css';

export const metadata = {
  title: { default: 'Author Publishing', template: '%s · Author Publishing' },
  description: 'Write, illustrate and publish articles through an exact REST API.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
