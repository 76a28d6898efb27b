// The time-control choices of the lobby (values are the protocol's `time_control` objects).
import { t } from "./i18n.js";

const CHOICES = [
  null,
  { kind: "fischer", minutes: 3, increment: 2 },
  { kind: "fischer", minutes: 5, increment: 3 },
  { kind: "fischer", minutes: 10, increment: 5 },
  { kind: "fischer", minutes: 15, increment: 10 },
  { kind: "correspondence", days: 1 },
  { kind: "correspondence", days: 3 },
];

function label(choice) {
  if (!choice) return t("ui.tc.untimed");
  if (choice.kind === "fischer") return t("ui.tc.fischer", choice);
  return t("ui.tc.days", choice);
}

/** Fills a <select> with the choices (untimed first). */
export function fillTimeControls(select) {
  if (!select) return;
  select.replaceChildren(
    ...CHOICES.map((choice, i) => {
      const option = document.createElement("option");
      option.value = String(i);
      option.textContent = label(choice);
      return option;
    }),
  );
}

/** The chosen time control (null: untimed). */
export function chosenTimeControl(select) {
  return select ? CHOICES[Number(select.value)] || null : null;
}
