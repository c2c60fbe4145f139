import { sniffMime } from "../src/modules/media/sniff.ts";
import { png, pdf, mp3, mp4, bigPng } from "../test/modules/media/samples.ts";
for (const [n, b] of [["png", png()], ["pdf", pdf()], ["mp3", mp3()], ["mp4", mp4()]] as const) console.log(n, await sniffMime(b as Uint8Array), (b as Uint8Array).length);
console.log(await sniffMime(new TextEncoder().encode("a,b\n1,2"), "text/csv"), await sniffMime(new TextEncoder().encode("hello"), "image/png"));
const big = bigPng(6 * 1024 * 1024); console.log(big.length, await sniffMime(big));
