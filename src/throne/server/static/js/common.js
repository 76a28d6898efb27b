// Shared by every page: the error line, the log-out button and `h`, the element builder.
import { api } from "./net.js";

export function showError(text) {
  const flash = document.getElementById("flash");
  if (flash) flash.textContent = text;
}

export function clearError() {
  const flash = document.getElementById("flash");
  if (flash) flash.textContent = "";
}

const logout = document.getElementById("logout");
if (logout) {
  logout.addEventListener("click", async () => {
    try {
      await api("/api/accounts/logout", { method: "POST" });
    } finally {
      location.href = "/";
    }
  });
}

/** An element with attributes (`class`, `text`, `on<event>` handlers, booleans) and children. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}
