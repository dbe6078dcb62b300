/**
 * This response's Content-Security-Policy nonce, for the inline scripts and styles React Router renders
 * in app/root.tsx. The server provides it (app/entry.server.tsx); in the browser it is "", which is also
 * what the browser reports for a nonce attribute once the page has loaded (it hides the value), so
 * hydration sees no difference.
 */
import { createContext, useContext } from "react";

export const NonceContext = createContext("");

export const useNonce = () => useContext(NonceContext);
