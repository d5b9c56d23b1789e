// What is made from a cached lookup's object alone (a profile's reply, its card's model) is made once
// per object: the lookup cache hands back the same object on every hit and nobody changes it, so
// what it makes is the same each time. Entries go with their object (a WeakMap).

/** `(object, key, make)`: `make()`'s value for this object and key, made the first time only; at most `perObject` keys an object. */
export function madeOnce<O extends object, V>(perObject = 16): (object: O, key: string, make: () => V) => V {
  const made = new WeakMap<O, Map<string, V>>();
  return (object, key, make) => {
    let byKey = made.get(object);
    if (!byKey) made.set(object, (byKey = new Map<string, V>()));
    if (byKey.has(key)) return byKey.get(key) as V;
    const value = make();
    if (byKey.size >= perObject) byKey.clear();
    byKey.set(key, value);
    return value;
  };
}
