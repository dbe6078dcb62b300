import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [tailwindcss(), reactRouter()],
  // date-fns is bundled into the server build, as into the browser's: Node loading the package itself reads every
  // one of its modules (about 2.6 s of a server's 3.2 s start here) for the one `format` the history chart uses.
  ssr: { noExternal: ["date-fns"] },
});
