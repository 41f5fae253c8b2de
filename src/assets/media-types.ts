// The media types an upload may have, each recognised by its first bytes as well as by its header
// (issue 10 storage: "allowed media types checked by content as well as by header"). No SVG, HTML or
// other type a browser would run script from: assets are served from the school's own origin.
export const UPLOAD_MEDIA_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
  'audio/mpeg',
  'video/mp4',
] as const;
export type UploadMediaType = (typeof UPLOAD_MEDIA_TYPES)[number];

/** How many leading bytes `matchesContent` needs. */
export const SNIFF_BYTES = 16;

const startsWith = (head: Uint8Array, bytes: readonly number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

export function isUploadMediaType(value: string): value is UploadMediaType {
  return (UPLOAD_MEDIA_TYPES as readonly string[]).includes(value);
}

/** Whether the first bytes of a file are those of the media type it claims. */
export function matchesContent(type: UploadMediaType, head: Uint8Array): boolean {
  switch (type) {
    case 'image/png':
      return startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case 'image/jpeg':
      return startsWith(head, [0xff, 0xd8, 0xff]);
    case 'image/gif':
      return startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'));
    case 'image/webp':
      return startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8);
    case 'application/pdf':
      return startsWith(head, ascii('%PDF-'));
    case 'audio/mpeg':
      // An ID3 tag, or an MPEG audio frame header (11 set sync bits).
      return startsWith(head, ascii('ID3')) || (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0);
    case 'video/mp4':
      return startsWith(head, ascii('ftyp'), 4);
  }
}
