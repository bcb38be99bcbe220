// coffer ui: the one piece of script, asking before a form that forgets something.
document.addEventListener("submit", (event) => {
  const said = event.target.dataset.confirm;
  if (said && !window.confirm(said)) event.preventDefault();
});
