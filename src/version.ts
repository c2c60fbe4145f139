import pkg from "../package.json";

/** The version of this build (from package.json, embedded at build time). */
export const VERSION: string = pkg.version;
