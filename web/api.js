// @ts-check
// The HTTP API (docs/http-api.md): one JSON call, its errors, and the token it sends.

import { TOKEN_KEY, readStorage, writeStorage } from "./storage.js";

/** @typedef {{error?: string, kind?: string, data?: {results?: import("./types.js").ActionResult[]}}} ErrorBody */

export class ApiError extends Error {
  /**
   * @param {number} status 0 when the gateway could not be reached
   * @param {ErrorBody | null} [body]
   */
  constructor(status, body) {
    super((body && body.error) || (status ? `HTTP ${status}` : "the gateway cannot be reached"));
    this.status = status;
    this.body = body || {};
    this.kind = this.body.kind;
    this.data = this.body.data;
  }
}

/**
 * Whatever a call or a step after it threw, for a person.
 * @param {unknown} error
 */
export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/** @param {unknown} error */
export function isUnauthorized(error) {
  return error instanceof ApiError && error.status === 401;
}

export const enc = encodeURIComponent;

let token = readStorage(TOKEN_KEY) || "";

export function currentToken() {
  return token;
}

/**
 * Sends `value` from now on, and keeps it in this browser.
 * @param {string} value
 */
export function useToken(value) {
  token = value;
  writeStorage(TOKEN_KEY, value);
}

/** @type {(reason: string) => void} */
let tokenAsker = () => {};

/**
 * Who asks the person for a token when the gateway wants one (the token dialog; set by app.js).
 * @param {(reason: string) => void} ask
 */
export function setTokenAsker(ask) {
  tokenAsker = ask;
}

/** @param {string} reason */
export function askForToken(reason) {
  tokenAsker(reason);
}

/**
 * One call; resolves to the answer's JSON (null for none), or rejects with an ApiError.
 * A 401 also asks for a token.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<unknown>}
 */
export async function api(method, path, body) {
  const text = await send(method, path, body, "application/json");
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { error: text };
  }
}

/**
 * An SVG image from the API (a QR code) as a `data:` address for an <img>, which cannot send the
 * token itself (and the page's Content-Security-Policy allows `data:` images, not `blob:`).
 * @param {string} path
 * @returns {Promise<string>}
 */
export async function apiImage(path) {
  const svg = await send("GET", path, undefined, "image/svg+xml");
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/**
 * Sends one request with the token; resolves to the answer's text, or rejects with an ApiError
 * (its body's JSON error when it has one). A 401 also asks for a token.
 * @param {string} method
 * @param {string} path
 * @param {unknown} body
 * @param {string} accept
 * @returns {Promise<string>}
 */
async function send(method, path, body, accept) {
  /** @type {Record<string, string>} */
  const headers = { Accept: accept };
  if (token) headers.Authorization = `Bearer ${token}`;
  /** @type {RequestInit} */
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, { error: `the gateway cannot be reached (${messageOf(error)})`, kind: "network" });
  }
  const text = await response.text();
  if (response.ok) return text;
  /** @type {ErrorBody | null} */
  let problem = null;
  try {
    problem = text ? /** @type {ErrorBody} */ (JSON.parse(text)) : null;
  } catch {
    problem = { error: text };
  }
  if (response.status === 401) {
    askForToken((problem && problem.error) || "this gateway needs a token");
  }
  throw new ApiError(response.status, problem);
}
