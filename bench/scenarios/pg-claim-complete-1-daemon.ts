import { pgClaimComplete } from './pg-claim-complete.js';

export default pgClaimComplete(1);
