/**
 * The origins of the web apps the built-in ABP backends of this process are connected to. An app hands its files
 * over as BinaryDataReferences on its own server, often a local one (http://localhost:5173/files/…): downloads for a
 * `type: abp` server may reach these origins whatever their address (the ABP preset says so, no other server's).
 * The browser shows that app already, so the proxy reaching it reveals nothing new.
 */
const connected = new Map<string, number>();

/** Registers an app's origin while a session shows it; the function returned ends that. */
export function trustAbpAppOrigin(origin: string): () => void {
  connected.set(origin, (connected.get(origin) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (connected.get(origin) ?? 1) - 1;
    if (left > 0) connected.set(origin, left);
    else connected.delete(origin);
  };
}

/** The origins connected now. */
export function abpAppOrigins(): ReadonlySet<string> {
  return new Set(connected.keys());
}
