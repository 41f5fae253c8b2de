// Operator operations of the appearance family (CONTRACT 6 appearance, scopes appearance:*): the logo (an
// uploaded image), colours, font and navigation, which the site's sign-in and consent pages wear. Colours
// are validated as #rrggbb and the primary colour must stand out on the pages' white card (3:1, WCAG
// 1.4.11); the text on buttons is chosen for contrast, so no choice here makes a page unreadable.
import { z } from 'zod';
import { contrastRatio, MIN_PRIMARY_CONTRAST } from '../../kernel/colour-contrast.js';
import { type Appearance, FONTS, findAppearance, saveAppearance } from '../../school/appearance.repository.js';
import { findAsset } from '../../school/assets.repository.js';
import { instantOrNull, isoOrNull } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { siteScope } from './site-scope.js';
import { assetUrl } from './storage.js';

const COLOR = /^#[0-9a-f]{6}$/;
const LOGO_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const color = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(z.string().regex(COLOR, 'a colour as #rrggbb'));
const navigationItem = z
  .object({
    label: z.string().trim().min(1).max(40),
    url: z
      .string()
      .max(2000)
      .refine((u) => /^\/(?!\/)[^\s]*$/.test(u) || /^https:\/\/[^\s]+$/.test(u), 'a path on this site ("/about") or an https URL'),
  })
  .strict();

const appearance = z.object({
  logoAssetId: z.string().nullable().describe('The uploaded image shown as the logo; null: none.'),
  logoUrl: z.string().nullable().describe('Where the logo is served.'),
  primaryColor: z.string().nullable().describe('Buttons, links and focus rings (#rrggbb); null: the default blue.'),
  backgroundColor: z.string().nullable().describe('Behind the pages’ card (#rrggbb); null: the default grey.'),
  font: z.enum(FONTS).describe('A font stack installed on every device: system, serif, rounded or mono.'),
  navigation: z.array(z.object({ label: z.string(), url: z.string() })).describe('The site’s navigation, in order.'),
  updatedAt: instantOrNull('When an operator last changed it; null when never'),
});

function appearanceOut(ctx: OperationContext, a: Appearance): z.output<typeof appearance> {
  return {
    logoAssetId: a.logoAssetId,
    logoUrl: a.logoAssetId ? assetUrl(ctx, a.logoAssetId) : null,
    primaryColor: a.primaryColor,
    backgroundColor: a.backgroundColor,
    font: a.font,
    navigation: a.navigation,
    updatedAt: isoOrNull(a.updatedAt),
  };
}

export const getAppearance: Operation = defineOperation({
  name: 'get_appearance',
  title: 'Get the school’s appearance',
  description: 'The logo, colours, font and navigation of this school’s pages.',
  audience: 'operator',
  scopes: ['appearance:read'],
  rest: { method: 'GET', path: '/appearance', resource: () => getAppearance },
  tool: false,
  input: z.object({}),
  output: z.object({ appearance }),
  annotations: READ_ONLY,
  async handle(ctx) {
    return { appearance: appearanceOut(ctx, await findAppearance(siteScope(ctx))) };
  },
});

export const updateAppearance = defineOperation({
  name: 'update_appearance',
  title: 'Change the school’s appearance',
  description:
    'Changes the given parts (the others stay): logoAssetId (an uploaded PNG, JPEG, GIF or WebP; null removes it), primaryColor and ' +
    'backgroundColor (#rrggbb; null: the default), font, navigation. The sign-in and consent pages show it from the next page on.',
  audience: 'operator',
  scopes: ['appearance:write'],
  rest: { method: 'PATCH', path: '/appearance', resource: () => getAppearance },
  tool: false,
  input: z.object({
    logoAssetId: z.string().min(1).max(64).nullable().optional(),
    primaryColor: color.nullable().optional(),
    backgroundColor: color.nullable().optional(),
    font: z.enum(FONTS).optional(),
    navigation: z.array(navigationItem).max(12).optional(),
  }),
  output: z.object({ appearance }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  audit: () => 'appearance',
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    if (input.logoAssetId) {
      const logo = await findAsset(scope, input.logoAssetId);
      if (!logo || !LOGO_TYPES.has(logo.mediaType))
        throw new OperationError('invalid_argument', 'The logo must be an image uploaded to this school (PNG, JPEG, GIF or WebP).', [
          { pointer: '/logoAssetId', detail: logo ? `a ${logo.mediaType} is not an image` : 'no such asset here' },
        ]);
    }
    if (input.primaryColor) {
      const ratio = contrastRatio(input.primaryColor, '#ffffff');
      if (ratio < MIN_PRIMARY_CONTRAST)
        throw new OperationError(
          'invalid_argument',
          `${input.primaryColor} is too light for links and buttons on the white card (contrast ${ratio.toFixed(2)}:1, at least ${MIN_PRIMARY_CONTRAST}:1 needed).`,
          [{ pointer: '/primaryColor', detail: `contrast with white must be at least ${MIN_PRIMARY_CONTRAST}:1` }],
        );
    }
    const current = await findAppearance(scope);
    const next = {
      logoAssetId: input.logoAssetId !== undefined ? input.logoAssetId : current.logoAssetId,
      primaryColor: input.primaryColor !== undefined ? input.primaryColor : current.primaryColor,
      backgroundColor: input.backgroundColor !== undefined ? input.backgroundColor : current.backgroundColor,
      font: input.font ?? current.font,
      navigation: input.navigation ?? current.navigation,
    };
    await saveAppearance(scope, next, ctx.clock.now());
    return { appearance: appearanceOut(ctx, await findAppearance(scope)) };
  },
});

export const APPEARANCE_OPERATIONS: readonly Operation[] = [getAppearance, updateAppearance];
