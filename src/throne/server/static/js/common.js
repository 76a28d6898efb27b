// Shared by every page: the error line and the log-out button.
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
