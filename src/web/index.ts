/** The local web app (`quire gui`): its server, built without listening, and the shapes its routes answer with. */
export { createGuiApp, type GuiApp, type GuiAppOptions } from './app.js';
export { newSessionToken, cookieName, TOKEN_HEADER } from './auth.js';
export { DEFAULT_SETTINGS, readGuiSettings } from './settings.js';
export type * from './api-types.js';
