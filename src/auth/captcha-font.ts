/**
 * The characters answers are drawn from. People misread U/V, M/A, H/N, 0/O/D/Q, 1/I/L, 2/Z,
 * 5/S, 6/G, 8/B/3, P/R/F and E/F once the glyphs are bent: at most one of each group is here,
 * and any two of these glyphs differ in at least 7 of their 35 cells (test/modules/auth/captcha.test.ts).
 * 17 symbols, 5 of them: 1.4 million answers, for a challenge that is one-time and rate limited.
 */
export const CAPTCHA_ALPHABET = "2345679CEHJKPTWXY";

/** A 5x7 bitmap font: the alphabet above and the rest of A-Z, 2-9 (older challenges, tests). */

const GLYPHS_SRC: Record<string, string> = {
  A: ".###. #...# #...# ##### #...# #...# #...#",
  B: "####. #...# #...# ####. #...# #...# ####.",
  C: ".###. #...# #.... #.... #.... #...# .###.",
  D: "####. #...# #...# #...# #...# #...# ####.",
  E: "##### #.... #.... ####. #.... #.... #####",
  F: "##### #.... #.... ####. #.... #.... #....",
  G: ".###. #...# #.... #.### #...# #...# .####",
  H: "#...# #...# #...# ##### #...# #...# #...#",
  J: "..### ...#. ...#. ...#. ...#. #..#. .##..",
  K: "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
  M: "#...# ##.## #.#.# #.#.# #...# #...# #...#",
  N: "#...# #...# ##..# #.#.# #..## #...# #...#",
  P: "####. #...# #...# ####. #.... #.... #....",
  Q: ".###. #...# #...# #...# #.#.# #..#. .##.#",
  R: "####. #...# #...# ####. #.#.. #..#. #...#",
  S: ".#### #.... #.... .###. ....# ....# ####.",
  T: "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
  U: "#...# #...# #...# #...# #...# #...# .###.",
  V: "#...# #...# #...# #...# #...# .#.#. ..#..",
  W: "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
  X: "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
  Y: "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
  Z: "##### ....# ...#. ..#.. .#... #.... #####",
  "2": ".###. #...# ....# ...#. ..#.. .#... #####",
  "3": "##### ...#. ..#.. ...#. ....# #...# .###.",
  "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
  "5": "##### #.... ####. ....# ....# #...# .###.",
  "6": "..##. .#... #.... ####. #...# #...# .###.",
  "7": "##### ....# ...#. ..#.. .#... .#... .#...",
  "8": ".###. #...# #...# .###. #...# #...# .###.",
  "9": ".###. #...# #...# .#### ....# ...#. .##..",
};

export const GLYPH_W = 5;
export const GLYPH_H = 7;

let glyphs: Record<string, boolean[][]> | undefined;

/** glyph -> rows of booleans, [y][x]; made with the first captcha drawn, not when the server starts */
export function fontGlyphs(): Record<string, boolean[][]> {
  return (glyphs ??= Object.fromEntries(
    Object.entries(GLYPHS_SRC).map(([ch, src]) => [ch, src.split(" ").map((row) => [...row].map((c) => c === "#"))]),
  ));
}
