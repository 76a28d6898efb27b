// The theme the player chose (localStorage "throne.theme": "light" or "dark"; absent: the system's), set on
// <html data-theme> before the first paint. A classic script loaded in <head> (the CSP allows no inline script);
// the switch in the header is static/js/theme.js.
(function () {
  try {
    var theme = localStorage.getItem("throne.theme");
    if (theme === "light" || theme === "dark") document.documentElement.setAttribute("data-theme", theme);
  } catch (e) {
    /* storage refused (privacy mode): the system's theme */
  }
})();
