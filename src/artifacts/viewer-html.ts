import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * The viewer's HTML, one self-contained file that `npm run build` bundles from viewer/ (viewer/build.mjs) into
 * dist/viewer/. This module sits one folder below the package root in both src/ and dist/, so the same relative
 * path finds it from the sources (tests) and from the build.
 */
export const VIEWER_HTML_PATH = fileURLToPath(new URL('../../dist/viewer/artifact-viewer.html', import.meta.url));

/** Where the built page holds its settings, replaced when it is served. */
const CONFIG_ELEMENT = /<script type="application\/json" id="viewer-config">\s*\{\}\s*<\/script>/;

/** What the page is told of the gateway that serves it. */
export interface ViewerPageConfig {
  /** artifact_read's name, when it is offered: the view's way in for hosts that do not relay resources/read. */
  readTool?: string;
}

let loaded: Promise<string> | undefined;

/** The page with `config` filled in. Read once; a missing build is an error that says how to make it. */
export async function viewerHtml(config: ViewerPageConfig): Promise<string> {
  loaded ??= readFile(VIEWER_HTML_PATH, 'utf8').catch((error: NodeJS.ErrnoException) => {
    loaded = undefined;
    throw new Error(
      error.code === 'ENOENT'
        ? `the artifact viewer is not built (${VIEWER_HTML_PATH} is missing): run npm run build`
        : `the artifact viewer could not be read: ${error.message}`,
      { cause: error },
    );
  });
  const html = await loaded;
  // `<` written as \u003c: nothing in the settings can end the script element.
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return html.replace(CONFIG_ELEMENT, () => `<script type="application/json" id="viewer-config">${json}</script>`);
}
