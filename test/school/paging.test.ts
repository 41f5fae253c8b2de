// Keyset paging rules shared by the member API and the MCP tools (SPEC 2.2 connections).
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PAGE_SIZE,
  decodeCursor,
  encodeCursor,
  MAX_PAGE_SIZE,
  PageRequestError,
  pageSize,
  toPage,
} from '../../src/school/paging.js';

describe('keyset paging', () => {
  it('uses the default page size when first is absent', () => {
    expect(pageSize(undefined)).toBe(DEFAULT_PAGE_SIZE);
    expect(pageSize(null)).toBe(DEFAULT_PAGE_SIZE);
  });

  it('accepts page sizes from 0 to the maximum', () => {
    expect(pageSize(0)).toBe(0);
    expect(pageSize(MAX_PAGE_SIZE)).toBe(MAX_PAGE_SIZE);
  });

  it('refuses a page size above the maximum, below zero or fractional', () => {
    for (const bad of [MAX_PAGE_SIZE + 1, -1, 2.5]) {
      expect(() => pageSize(bad)).toThrow(PageRequestError);
    }
    expect(() => pageSize(101)).toThrow(/from 0 to 100; got 101/);
  });

  it('round-trips a cursor of its own list', () => {
    const cursor = encodeCursor('notifications', { sort: 1_700_000_000_000, id: 'ntf_1' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('notifications', cursor)).toEqual({ sort: 1_700_000_000_000, id: 'ntf_1' });
  });

  it('refuses a cursor of another list, and garbage', () => {
    const cursor = encodeCursor('notifications', { sort: 1, id: 'x' });
    expect(() => decodeCursor('enrollments', cursor)).toThrow(PageRequestError);
    for (const bad of [
      '',
      'not a cursor',
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from('["enrollments","1","x"]').toString('base64url'),
    ]) {
      expect(() => decodeCursor('enrollments', bad)).toThrow(PageRequestError);
    }
  });

  it('reports a next page only when an extra row was fetched', () => {
    const rows = [1, 2, 3].map((n) => ({ n }));
    const full = toPage('l', rows, 2, (r) => ({ sort: r.n, id: String(r.n) }));
    expect(full.edges.map((e) => e.node.n)).toEqual([1, 2]);
    expect(full.hasNextPage).toBe(true);
    expect(full.endCursor).toBe(full.edges[1]?.cursor);
    const last = toPage('l', rows, 3, (r) => ({ sort: r.n, id: String(r.n) }));
    expect(last.hasNextPage).toBe(false);
    const empty = toPage('l', [], 5, () => ({ sort: 0, id: '' }));
    expect([empty.edges, empty.hasNextPage, empty.endCursor]).toEqual([[], false, null]);
  });

  it('writes the endCursor, the last row’s cursor, only when it is read, and keeps it when the page is written out as JSON', () => {
    const rows = [1, 2, 3].map((n) => ({ n }));
    const keysRead: number[] = [];
    const page = toPage('l', rows, 2, (r) => {
      keysRead.push(r.n);
      return { sort: r.n, id: String(r.n) };
    });
    expect(keysRead).toEqual([]);
    expect(decodeCursor('l', page.endCursor)).toEqual({ sort: 2, id: '2' });
    expect(keysRead).toEqual([2]);
    expect(JSON.parse(JSON.stringify(page))).toMatchObject({ hasNextPage: true, endCursor: page.endCursor });
    // A list that fetched one row more than it completed says itself whether a next page follows.
    expect(toPage('l', rows.slice(0, 2), 2, (r) => ({ sort: r.n, id: String(r.n) }), true).hasNextPage).toBe(true);
  });
});
