/**
 * The plugin API number. A plugin's manifest names the number it was written for
 * (`[requires] api = 1`); the host refuses a plugin whose number differs, naming both.
 *
 * Raised only when a change would break an existing plugin; additions keep the number and say
 * in their TSDoc which API version added them.
 *
 * @since API 1
 */
export const API_VERSION = 1;
