// The house rules on the options forms (templates/lobby/_options.html): picking a preset
// sets the switches to it, and touching a switch makes the preset "custom" (one by one).
// Without this script the server reads a named preset alone and the switches only with
// "custom" (spades.web.rooms.options), so every form means what it shows either way.
"use strict";
document.addEventListener("change", (event) => {
  const el = event.target;
  const form = el.form;
  const box = form && form.querySelector("[data-house-presets]");
  if (!box) return;
  if (el.name === "preset") {
    const chosen = JSON.parse(box.dataset.housePresets)[el.value];
    if (!chosen) return; // one by one: the switches stay as they are
    for (const [name, value] of Object.entries(chosen)) {
      for (const input of form.querySelectorAll(`[name="${name}"]`)) {
        if (input.type === "checkbox") input.checked = value === "on";
        else if (input.type === "radio") input.checked = input.value === value;
        else input.value = value;
      }
    }
  } else if (el.closest("[data-house-switches]")) {
    const preset = form.querySelector('[name="preset"]');
    if (preset) preset.value = "custom";
  }
});
