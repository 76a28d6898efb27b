// The table chat of a replay (stored with the game; both channels once it is over), shown as text only.
import { loadCatalog } from "./i18n.js";
import { api } from "./net.js";
import { chatLine } from "./chat.js";

async function main() {
  const root = document.querySelector("#replay-root");
  const invite = new URLSearchParams(location.search).get("invite");
  await loadCatalog(document.documentElement.lang);
  try {
    const data = await api(`/api/games/${root.dataset.gameId}/chat${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`);
    const list = document.querySelector("#replay-chat-list");
    list.replaceChildren(...data.messages.map((m) => chatLine(m)));
    document.querySelector("#replay-chat").hidden = data.messages.length === 0;
  } catch {
    /* no chat to show */
  }
}

main();
