// Debian's Chromium through playwright-core (never a downloaded browser); playwright gives each launch a
// fresh empty profile. Missing Chromium skips the
// browser tests loudly on a developer machine and fails them under CI=true.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.SCHOOLGATE_CHROMIUM ?? '/usr/bin/chromium';

export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI === 'true') throw new Error(`Chromium is required under CI=true and was not found at ${CHROMIUM_PATH}`);
  console.warn(`\n!!! Chromium not found at ${CHROMIUM_PATH}: browser tests are SKIPPED (apt-get install chromium) !!!\n`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
