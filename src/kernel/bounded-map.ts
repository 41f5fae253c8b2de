// The one eviction rule of the in-process caches: a Map holds at most `max` keys, and when a new key comes
// to a full one, the key set longest ago goes. Emptying a full cache instead turned every entry into a miss
// at once whenever more keys than the bound were in use (the access-token cache and the coherent caches
// did so before issue 12). A Map iterates in insertion order, and a key set again is deleted first, so it
// moves to the end: the first key is always the one set longest ago.

/** Sets `key` in `map`, first forgetting the key set longest ago when the map already holds `max` others. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}
