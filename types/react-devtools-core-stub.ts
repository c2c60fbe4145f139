// Ink imports react-devtools-core only in dev mode; the compiled binary must not try to load it.
export default { initialize() {}, connectToDevTools() {} };
