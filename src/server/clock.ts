/**
 * The time that decides things in the job server: leases, retries and deferrals, the OCR batch schedule, retention,
 * webhook retries. A test passes its own and moves it, instead of sleeping until the wall clock gets there. Timers
 * (how often to renew or tick) stay on real time: they say when to look, the clock says what is due.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
