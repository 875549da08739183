/**
 * Where `registerDestination` puts a plugin's class. It lives in its own module so the sandbox
 * runner (which imports this file directly) and the plugin (which reaches it through
 * `quire/plugin-api`) share one instance in the child process; it is not part of the API.
 */
import type { DestinationClass } from './destination.js';

const registered: DestinationClass[] = [];

/** Record a destination class (called by `registerDestination`). */
export function recordDestination(cls: DestinationClass): void {
  if (!registered.includes(cls)) registered.push(cls);
}

/** The classes registered so far in this process. */
export function registeredDestinations(): readonly DestinationClass[] {
  return [...registered];
}
