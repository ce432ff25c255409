// Example of the embedding API: send a query to the iframe, listen for its changes (origin checked).
'use strict';
const frame = document.getElementById('tf');
document.getElementById('qlora').addEventListener('click', () => {
  frame.contentWindow.postMessage({ type: 'trainfit:set-query', query: { model: 'llama-3.1-8b', method: 'qlora' } },
                                  location.origin);
});
window.addEventListener('message', (e) => {
  if (e.origin !== location.origin || !e.data || e.data.type !== 'trainfit:change') return;
  document.getElementById('seen').textContent = String(e.data.hash);
});
