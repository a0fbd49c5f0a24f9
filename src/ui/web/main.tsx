import './style.css';
import './legacy.js';
