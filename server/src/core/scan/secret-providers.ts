// Credentials that carry their provider's prefix: recognised by their shape alone, wherever they
// appear (a sentence, a command, a config line). Each shape is the provider's documented token
// format, tight enough that ordinary prose and code do not match (the benign fixtures in
// test/fixtures/scan must stay clean). Credentials with no prefix are found by the phrase rules
// in secret-rules.ts instead.

/** [rule code, title, pattern]: secret-rules.ts turns each into a rule that skips placeholders. */
export type ProviderShape = readonly [code: string, title: string, re: RegExp];

// After a token: no further character of the token's alphabet (so a longer word is not cut).
const END = '(?![A-Za-z0-9_-])';
const shape = (code: string, title: string, source: string): ProviderShape => [
  `secret/${code}`,
  title,
  new RegExp(source),
];

export const PROVIDER_SHAPES: readonly ProviderShape[] = [
  shape('sendgrid-key', 'SendGrid API key', String.raw`\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}${END}`),
  shape('twilio-key', 'Twilio API key', String.raw`\bSK[0-9a-f]{32}\b`),
  shape('mailgun-key', 'Mailgun API key', String.raw`\bkey-[0-9a-f]{32}\b`),
  shape(
    'discord-token',
    'Discord bot token',
    String.raw`\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}${END}`,
  ),
  shape('telegram-token', 'Telegram bot token', String.raw`\b\d{8,10}:AA[A-Za-z0-9_-]{33}${END}`),
  shape('digitalocean-token', 'DigitalOcean token', String.raw`\bdo[opr]_v1_[0-9a-f]{64}\b`),
  shape('shopify-token', 'Shopify token', String.raw`\bshp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b`),
  shape('vault-token', 'HashiCorp Vault token', String.raw`\bhv[sb]\.[A-Za-z0-9_-]{24,}`),
  shape('pypi-token', 'PyPI upload token', String.raw`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`),
  shape('docker-token', 'Docker Hub access token', String.raw`\bdckr_pat_[A-Za-z0-9_-]{27,}`),
  shape('databricks-token', 'Databricks token', String.raw`\bdapi[0-9a-f]{32}(?:-\d)?\b`),
  shape('linear-key', 'Linear API key', String.raw`\blin_api_[A-Za-z0-9]{40}\b`),
  shape('postman-key', 'Postman API key', String.raw`\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}\b`),
  shape('newrelic-key', 'New Relic key', String.raw`\bNRAK-[A-Z0-9]{27}\b`),
  shape('atlassian-token', 'Atlassian API token', String.raw`\bATATT3[A-Za-z0-9_=-]{50,}`),
  shape('google-oauth-secret', 'Google OAuth client secret', String.raw`\bGOCSPX-[A-Za-z0-9_-]{28}${END}`),
  shape('stripe-webhook-secret', 'Stripe webhook secret', String.raw`\bwhsec_[A-Za-z0-9+/]{32,}`),
  shape(
    'square-token',
    'Square token',
    String.raw`\b(?:EAAA[A-Za-z0-9_-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43})${END}`,
  ),
  shape('supabase-token', 'Supabase access token', String.raw`\bsbp_[0-9a-f]{40}\b`),
  shape(
    'grafana-token',
    'Grafana token',
    String.raw`\b(?:glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}\b|glc_[A-Za-z0-9+/]{32,}={0,2})`,
  ),
  shape('sentry-token', 'Sentry auth token', String.raw`\bsntry[su]_[A-Za-z0-9+/=_-]{50,}`),
  shape('doppler-token', 'Doppler token', String.raw`\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b`),
  shape('pulumi-token', 'Pulumi access token', String.raw`\bpul-[0-9a-f]{40}\b`),
  shape(
    'tailscale-key',
    'Tailscale key',
    String.raw`\btskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}`,
  ),
  shape('replicate-token', 'Replicate API token', String.raw`\br8_[A-Za-z0-9]{37}\b`),
  shape('groq-key', 'Groq API key', String.raw`\bgsk_[A-Za-z0-9]{52}\b`),
  shape('xai-key', 'xAI API key', String.raw`\bxai-[A-Za-z0-9]{80}\b`),
  shape('perplexity-key', 'Perplexity API key', String.raw`\bpplx-[A-Za-z0-9]{48}\b`),
  shape(
    'azure-client-secret',
    'Azure client secret',
    String.raw`(?<![A-Za-z0-9_.~-])[A-Za-z0-9_.~-]{3}\dQ~[A-Za-z0-9_.~-]{31,34}(?![A-Za-z0-9_.~-])`,
  ),
  shape(
    'age-secret-key',
    'age secret key',
    String.raw`\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`,
  ),
];
