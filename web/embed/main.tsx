import { render } from 'preact';
import type { EmbedBoot } from '../../src/embed/embed-view';
import { App } from './app';

const bootElement = document.getElementById('embed-boot');
const boot = JSON.parse(bootElement?.textContent ?? 'null') as EmbedBoot;
render(<App boot={boot} />, document.getElementById('app')!);
