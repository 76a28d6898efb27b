// The theme switch of the site header: light, dark or the system's, kept in localStorage ("throne.theme") and
// applied at once; static/js/theme-init.js applies it on the next page before the first paint.
const KEY = "throne.theme";
const THEMES = ["light", "dark"];

/** The theme the player chose: "light", "dark" or "system". */
export function chosenTheme() {
  try {
    const theme = localStorage.getItem(KEY);
    return THEMES.includes(theme) ? theme : "system";
  } catch {
    return "system";
  }
}

/** Keep `theme` ("light", "dark" or "system") and apply it to this page. */
export function chooseTheme(theme) {
  const root = document.documentElement;
  try {
    if (THEMES.includes(theme)) localStorage.setItem(KEY, theme);
    else localStorage.removeItem(KEY);
  } catch {
    /* storage refused: this page only */
  }
  if (THEMES.includes(theme)) root.dataset.theme = theme;
  else delete root.dataset.theme;
}

const select = document.getElementById("theme-select");
if (select) {
  select.value = chosenTheme();
  select.addEventListener("change", () => chooseTheme(select.value));
}
