// The bare page's Module: just the canvas (web/app.js does the same for the app, plus everything else).
window.Module = { canvas: document.getElementById('canvas'), print: (t) => console.log(t), printErr: (t) => console.warn(t) };
