/**
 * A loopback port nothing listens on, for the "X is unreachable" cases. A port `freePort()` found free is not one:
 * between finding it and connecting, a server another test file starts may bind it (CI once had an HTTP server answer
 * a bot that was told Redis was there). Port 1 (tcpmux) is one no test and no daemon on these machines binds, so a
 * connection to it is refused at once (ECONNREFUSED).
 */
export const CLOSED_PORT = 1;
