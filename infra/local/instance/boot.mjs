// A function instance's thread starts here: TypeScript handler modules load through tsx, as under
// `npm start`, whatever loaded the runtime itself (tsx, or a test runner's own transform).
import { register } from 'tsx/esm/api';

register();
await import('./instance-main.ts');
