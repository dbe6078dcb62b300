/**
 * How long the leaderboard is: GET /api/leaderboard answers the top 100 unless asked for more, at most
 * 1000; a wallet's rank counts places within that longest list only (0 below it).
 */
export const LEADERBOARD_DEFAULT_LIMIT = 100;
export const LEADERBOARD_MAX_LIMIT = 1000;
