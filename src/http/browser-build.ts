import * as esbuild from 'esbuild';

/** Bundles one browser entry point (script or stylesheet) in memory, minified for the browsers we support. */
export async function buildBrowserBundle(entryPoint: string, options: esbuild.BuildOptions = {}): Promise<Buffer> {
  const result = await esbuild.build({
    entryPoints: [entryPoint],
    bundle: true,
    minify: true,
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    logLevel: 'silent',
    ...options,
  });
  const output = result.outputFiles?.[0];
  if (!output) throw new Error(`esbuild produced nothing for ${entryPoint}`);
  return Buffer.from(output.contents);
}
