// The viewer's pure data modules, loaded the way node loads any CommonJS file.
const path = require('node:path');

const dir = path.join(__dirname, '..', '..', 'src', 'sessiontree', 'templates', 'viewer');
const load = (name) => require(path.join(dir, name + '.js'));

module.exports = { load };
