// Copies the SVG icons next to the compiled nodes: n8n resolves `file:` icons relative to dist/.
const { src, dest, task } = require('gulp');

task('build:icons', () => src('icons/*.svg').pipe(dest('dist/icons')));
