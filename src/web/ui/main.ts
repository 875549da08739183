/// <reference lib="dom" />
/** The page's entry: the app, rendered into #app (index.html links the styles). */
import { h, render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) render(h(App, null), root);
